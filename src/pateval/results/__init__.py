"""Evaluation results as text and back: the writers of result tables (:mod:`.writers`) and
the readers of per-topic score files (:mod:`.readers`).

Above the measures, whose registry gives the measure names both parse and print; below
stats, reports and the command line, which write and read through them.
"""
