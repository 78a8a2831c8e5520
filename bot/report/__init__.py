"""What Wikiwarden tells people and programs, built on the core and never imported by it: a check's report (text,
markdown, JSON, GitHub workflow commands, SARIF), a fix's and a grounding's, next steps, two texts side by side,
and untrusted text made inert before it reaches GitHub."""
