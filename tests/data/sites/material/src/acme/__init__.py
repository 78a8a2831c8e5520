"""Acme: builds things, with retries."""
