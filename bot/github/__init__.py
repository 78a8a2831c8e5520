"""The GitHub App: authentication, a careful API client, check runs, webhook routes, repository config."""
