"""The GitHub App, grouped by what a module does: `api/` calls GitHub (the retrying client, installation tokens, which
refusals are permanent, the check run's calls, publishing a proposal); `content/` decides what is written there,
without I/O (the check run's content, the follow-up pull requests); `runners/` runs the jobs (check, fix,
grounding) over both; `handlers/` turns webhook deliveries into jobs; `runtime.py` holds what every job of a
process shares, and is handed its runners and its agents (it never imports `bot.agent`)."""
