"""Provides the remedy catalogue: known problems recognized in output, explained, and fixed."""

from wizard.remedies.catalogue import Catalogue, Remedy, catalogue_or_none, load_catalogue
from wizard.remedies.matcher import Match, RemedyMatcher, match_lines, match_text

__all__ = ["Catalogue", "Match", "Remedy", "RemedyMatcher", "catalogue_or_none", "load_catalogue", "match_lines", "match_text"]
