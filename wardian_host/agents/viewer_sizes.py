"""The size an agent's PTY takes while people view it through `agent attach` (and the web view).

The rule, as tmux's `window-size smallest`: the PTY takes the smallest rows and the smallest
columns any attached typing viewer reports, so every viewer sees the whole screen (a larger
one sees it in its top-left corner, nothing is cut off for a smaller one). A read-only viewer
(a web tile, `--read-only`) and one whose terminal reports no size never size the agent. When
the last sizing viewer leaves, the agent goes back to its own size: the one it was launched
at, which its provider's screen rules were written against.
"""

from wardian_core.parsing import DEFAULT_COLS, DEFAULT_ROWS

Size = tuple[int, int]  # (rows, cols)


class ViewerSizes:
    def __init__(self, own: Size = (DEFAULT_ROWS, DEFAULT_COLS)) -> None:
        self.own = own
        self.applied = own  # what the PTY was last given
        self._sizes: dict[object, Size] = {}

    def set(self, viewer: object, size: Size) -> None:
        """`viewer` (any token it keeps while attached) joined with, or changed to, `size`."""
        self._sizes[viewer] = size

    def leave(self, viewer: object) -> None:
        self._sizes.pop(viewer, None)

    def chosen(self) -> Size:
        if not self._sizes:
            return self.own
        return min(rows for rows, _ in self._sizes.values()), min(cols for _, cols in self._sizes.values())
