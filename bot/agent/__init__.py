"""The model-driven part of the fix: prompts, read-only tools, budgets, and the loop that asks, checks and
asks again once. It only ever proposes; `bot.fix.check` decides what is applied."""
