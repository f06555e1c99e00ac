"""Git worktrees Wardian makes for agents and workflow nodes, and removal that cannot lose work.

Pure git and file logic, no host: `creating` makes a worktree on a new branch, `carry_over`
copies the `.worktreeinclude` files in, `commands` runs set-up and tear-down, `safety` lists
what a removal would lose (`hidden`: what git does not show), `archive` snapshots all of it to
`refs/wardian/archive/<id>` (`nested`: repositories nested in it, whole), and
`removing` puts the rules together. docs/worktrees.md describes them for users.
"""
