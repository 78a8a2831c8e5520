"""The App's calls to GitHub, and what GitHub's answers mean: the retrying client, installation tokens, which
refusals are permanent, the check run's calls, and publishing a proposal (a commit, its branch, its pull request).
What is written is decided in `bot.github.content`, without I/O."""
