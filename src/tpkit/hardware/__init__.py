"""GPU facts and topology value types (pure)."""
