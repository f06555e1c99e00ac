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

  // `list`'s items in the order of `entries`, each keyed by `data-<name>`: `itemFor(entry, standing)`
  // gives the item (the standing one, updated or kept, or a new one). A standing item is moved
  // only when the order changed, so what a person types in it keeps its text and its focus.
  keyed(list, name, entries, keyOf, itemFor) {
    const shown = new Map([...list.children].map((item) => [item.dataset[name], item]));
    const wanted = new Set(entries.map(keyOf));
    for (const [key, item] of shown) if (!wanted.has(key)) item.remove();
    entries.forEach((entry, index) => {
      const standing = shown.get(keyOf(entry));
      const item = itemFor(entry, standing);
      if (standing && standing !== item) standing.replaceWith(item);
      if (list.children[index] !== item) list.insertBefore(item, list.children[index] || null);
    });
  },
};
