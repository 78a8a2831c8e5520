"""Adapters that produce file contents at a commit: a local git repository, or the GitHub API."""
