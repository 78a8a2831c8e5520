"""The App's job runners: a check (check.py), a fix (fix.py), a grounding (ground.py), and what the two that
propose a pull request share (proposing.py); `table.py` says which runs each kind of job."""
