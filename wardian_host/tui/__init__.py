"""`wardian tui`: a terminal dashboard of every agent, built on Textual.

Imported only when `wardian tui` runs (the CLI registers the command lazily), so Textual never
weighs on another command's start. Each module has one job: `roster` (the agents as rows),
`feed` (status changes from the host's event stream), `queue` (what needs a person),
`preview` (the selected agent's screen), `actions` (what a key does, through the CLI's own
answers), `forms` (the dialogs a key opens), `keys` (the bindings and their help), `app`.
"""
