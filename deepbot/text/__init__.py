"""Text pieces shared by stages that must not import each other.

- ``query``: the keyword query language of the relevance filter and of full-text search.
"""
