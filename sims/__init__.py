"""Simulators for the SGEMM course: a pure model per topic plus two thin views.

Each module exposes a model (plain Python/NumPy), ``widget(**initial)`` for JupyterLab
and ``figure(**initial)`` for the static HTML site.
"""
from sims._common import SimInputError

__all__ = ["SimInputError"]
