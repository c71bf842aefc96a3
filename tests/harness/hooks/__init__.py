"""Tests of harness/hooks."""
