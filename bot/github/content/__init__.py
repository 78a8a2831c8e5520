"""What the App writes to GitHub, decided without I/O: the check run's content, the follow-up pull requests'
branches, markers, publication plans, titles and bodies (the fix's and the grounding's). `bot.github.api` carries
it out."""
