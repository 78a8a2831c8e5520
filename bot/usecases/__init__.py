"""The use cases, written once over a `Source` and called by every face (the command line, the App's jobs,
the tests): check a wiki through a change, fix it, keep claims by hand, bring its OKF metadata up to date."""
