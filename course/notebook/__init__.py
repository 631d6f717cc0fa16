"""Chapters as Jupyter notebooks, and what runs inside a notebook.

    export           book/*.md to .ipynb for Colab and JupyterHub (tools/export_notebooks.py, make notebooks)
    markdown         MyST text cells to plain Markdown/HTML for the notebooks
    cells            the cells put in front of every exported notebook (install, progress folder, GPU check)
    runtime          the GPU check those cells run (show_runtime)
    exercise_magic   ``%load_ext course.notebook.exercise_magic``: the kernel exercises' IPython magics

What it may import: kernels (the doctor), course.toc, course.page (runtime's recorded notes), and
nothing of course.quiz, course.gating or course.site. ``exercise_magic`` is the exception at the
top: it wraps course.autograder.lab, so only IPython loads it and no course module imports it.
"""
