"""Python references resolved as Python resolves them: the package's API read with griffe from the texts a source
gives (roots outside the project, aliases, re-exports, inheritance), and the pages' Python code blocks."""
