"""The words options take, each list written once: route options are typed with these
``Literal`` types (the command line's choices come from them), and the modules that act on
a word check it against the same tuple."""

from __future__ import annotations

from typing import Literal, get_args

#: First-order methods on the saddle point of a two-player zero-sum game.
FirstOrderAlgorithm = Literal["cfr+", "pcfr+", "dcfr", "mirror-prox"]
#: What the sequence-form routes solve with: the LP, restricted LPs grown by best responses
#: (the double oracle), or a first-order method.
Algorithm = Literal["lp", "double-oracle", FirstOrderAlgorithm]
#: Where a first-order method's arrays live: numpy, torch on the CPU, torch on CUDA, or
#: auto (CUDA for large payoff matrices when torch sees one, numpy otherwise).
Device = Literal["numpy", "cpu", "cuda", "auto"]
#: Refinements of a zero-sum game's equilibrium the LP route computes exactly.
Refinement = Literal["quasi-perfect", "ef-perfect"]
#: Which of a zero-sum game's equilibria the LP route answers with, for a stated objective
#: (range: the vertex, with the range of the objective the equilibria span).
Selection = Literal["best", "worst", "range"]
#: GameShrink's merge rules: the project's lossless one, the paper's as published (not
#: lossless), and none (the full game built from its signals).
ShrinkRule = Literal["lossless", "published", "none"]
#: How a program writes a product of two weights.
Products = Literal["sos2", "cc", "incremental", "log", "dlog", "exact"]
#: How indicator constraints (disjunctions) reach a backend.
Indicators = Literal["native", "bigm", "hull"]
#: Which of the equilibria a threshold program admits it answers with.
Select = Literal["any", "lowest", "highest"]
#: How several threshold models, one of which holds, are solved.
Join = Literal["one-program", "separate"]
#: How continuous threshold answers are certified.
ThresholdCertificate = Literal["exact", "cells"]
#: MIP Nash's formulations (Sandholm, Gilpin and Conitzer 2005).
NashFormulation = Literal[1, 2, 3, 4]

FIRST_ORDER_ALGORITHMS: tuple[str, ...] = get_args(FirstOrderAlgorithm)
DEVICES: tuple[str, ...] = get_args(Device)
ALGORITHMS: tuple[str, ...] = get_args(Algorithm)
SHRINK_RULES: tuple[str, ...] = get_args(ShrinkRule)
PRODUCTS: tuple[str, ...] = get_args(Products)
INDICATORS: tuple[str, ...] = get_args(Indicators)
SELECTS: tuple[str, ...] = get_args(Select)
JOINS: tuple[str, ...] = get_args(Join)
THRESHOLD_CERTIFICATES: tuple[str, ...] = get_args(ThresholdCertificate)

__all__ = [
    "ALGORITHMS",
    "Algorithm",
    "DEVICES",
    "Device",
    "FIRST_ORDER_ALGORITHMS",
    "FirstOrderAlgorithm",
    "INDICATORS",
    "Indicators",
    "JOINS",
    "Join",
    "NashFormulation",
    "PRODUCTS",
    "Products",
    "SELECTS",
    "SHRINK_RULES",
    "Refinement",
    "Select",
    "Selection",
    "ShrinkRule",
    "THRESHOLD_CERTIFICATES",
    "ThresholdCertificate",
]
