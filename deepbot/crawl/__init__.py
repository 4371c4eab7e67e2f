"""The crawl engine and what it asks before each fetch (robots.txt, politeness)."""
