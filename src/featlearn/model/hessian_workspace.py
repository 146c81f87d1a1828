"""How the bottom of the Hessian spectrum is computed at each size, and the memory that takes
(``model.hessian_spectrum``).  Plain Python: the workflow prices its jobs with it without loading
numba."""

DENSE_MAX = 2500
"""The largest md whose Hessian is eigendecomposed densely (``eigh`` of the explicit matrix); above
it, Lanczos on the matrix-free operator."""


def spectrum_workspace_bytes(md):
    """Bytes the bottom-spectrum computation holds for the md×md Hessian: the matrix and the
    workspace of ``eigh``, 4·(md)²·8, when md ≤ DENSE_MAX; a few Lanczos vectors, 10·md·8, above."""
    return 4 * md * md * 8 if md <= DENSE_MAX else 10 * md * 8
