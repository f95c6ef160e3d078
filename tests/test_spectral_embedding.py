"""``planner.placement.qap.spectral_embedding``: the floor assignment's spectral coordinates do
not depend on which eigenvector basis LAPACK returns. A repeated eigenvalue (groups that a
symmetry permutes) lets LAPACK return any basis of its eigenspace, and BLAS kernels for
different processors do return different ones; here every basis is replaced by a random
rotation of itself inside each eigenspace, with random signs, and the embedding stays the
same to the last decimal it keeps."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
import scipy.linalg

from planner.placement import qap

EIGH = scipy.linalg.eigh


def _laplacian(graph: nx.Graph) -> np.ndarray:
    return nx.laplacian_matrix(graph, nodelist=sorted(graph)).toarray().astype(float)


LAPLACIANS = {
    "cycle of 12 (eigenvalues twice each)": _laplacian(nx.cycle_graph(12)),
    "complete bipartite 4,4 (one eigenvalue six times)": _laplacian(
        nx.complete_bipartite_graph(4, 4)),
    "3x4 grid (some repeated)": _laplacian(nx.grid_2d_graph(3, 4)),
    "path of 9 (none repeated)": _laplacian(nx.path_graph(9)),
    "Petersen (eigenvalues 5 and 4 times)": _laplacian(nx.petersen_graph()),
}


def _rotated_eigh(seed: int):
    """``scipy.linalg.eigh`` whose eigenvectors are turned by a random orthogonal matrix
    inside each eigenspace and flipped in sign at random: another valid answer."""
    rng = np.random.default_rng(seed)

    def eigh(a, *args, **kwargs):
        vals, vecs = EIGH(a, *args, **kwargs)
        vecs = vecs.copy()
        start = 0
        while start < len(vals):
            stop = start + 1
            while stop < len(vals) and abs(vals[stop] - vals[start]) < 1e-8:
                stop += 1
            q, _ = np.linalg.qr(rng.normal(size=(stop - start, stop - start)))
            vecs[:, start:stop] = vecs[:, start:stop] @ q
            start = stop
        return vals, vecs * rng.choice([-1.0, 1.0], size=len(vals))
    return eigh


@pytest.mark.parametrize("name", list(LAPLACIANS))
def test_the_embedding_is_the_same_for_any_eigenbasis(name, monkeypatch):
    lap = LAPLACIANS[name]
    want = qap.spectral_embedding(lap)
    for seed in range(5):
        monkeypatch.setattr(qap.scipy.linalg, "eigh", _rotated_eigh(seed))
        assert np.array_equal(qap.spectral_embedding(lap), want), seed
        monkeypatch.undo()


@pytest.mark.parametrize("name", list(LAPLACIANS))
def test_the_embedding_lies_in_the_lowest_eigenspaces(name):
    """Both coordinates (before their scaling) are orthogonal to the constant vector and lie in
    the span of the eigenvectors of the 2nd and 3rd smallest eigenvalues and of every
    eigenvalue equal to those."""
    lap = LAPLACIANS[name]
    emb = qap.spectral_embedding(lap)
    vals, vecs = scipy.linalg.eigh(lap)
    keep = vals <= vals[2] + 1e-8
    span = vecs[:, keep]
    assert np.allclose(emb.mean(axis=0), 0, atol=1e-9)
    assert np.allclose(emb.std(axis=0), 1, atol=1e-6)
    residue = emb - span @ (span.T @ emb)
    assert np.abs(residue).max() < 1e-6
    assert np.linalg.matrix_rank(emb, tol=1e-6) == 2
