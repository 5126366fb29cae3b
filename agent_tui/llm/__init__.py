"""The one place litellm is imported, always lazily (it costs ~1.7 s and fetches a price map
unless told not to)."""
