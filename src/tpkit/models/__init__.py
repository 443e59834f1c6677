"""Model configs → ModelSpec (pure)."""
