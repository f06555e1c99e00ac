// One element builder for the page's scripts (inbox, budgets, app): loaded before them.
"use strict";

window.wardianDom = {
  node(tag, props = {}, ...children) {
    const made = document.createElement(tag);
    for (const [key, value] of Object.entries(props)) {
      if (key === "class") made.className = value;
      else if (key.startsWith("on")) made.addEventListener(key.slice(2), value);
      else made.setAttribute(key, value);
    }
    for (const child of children) made.append(child);
    return made;
  },
};
