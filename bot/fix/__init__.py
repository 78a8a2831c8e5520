"""The fix, pure: from a sweep's findings to reviewed decisions and the exact files to write.

Moved and cosmetic evidence is re-anchored without a model; every other claim the change made stale is
decided by the agent (confirm, update or retract) through checked answers; what cannot be decided stays
flagged and says why.
"""
