"""The repository as a whole: the import layers, module sizes, the test tiers, the package's files."""
