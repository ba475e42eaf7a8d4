"""io: see README "How it is built"."""
