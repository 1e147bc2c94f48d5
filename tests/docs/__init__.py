"""The documentation site: its build, pages, guide and glossary."""
