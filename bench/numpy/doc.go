// Package numpy runs NumPy as a peer of the overlap checkers: the question
// impl/overlap's Exact answers, NumPy answers with np.shares_memory (exact)
// and np.may_share_memory (the bounds), and a user choosing a dependency
// tracker would hold the two side by side.
//
// The Go benchmarks write the view pairs of each of their overlap families
// as JSON (WriteViews), from the generators the benchmarks themselves use,
// so that both sides measure the same pairs. peer.py, embedded here and run
// by a Python 3 that imports numpy (Find), builds each view with
// numpy.lib.stride_tricks.as_strided over one byte buffer per family and
// either times NumPy on them (Peer.Bench: Go benchmark lines, impl=NumPy,
// impl=NumPyMayShare and impl=NumPyNet, which `verify bench` merges into
// its interleaved rounds) or gives NumPy's answers (Peer.Answers), which
// Check compares with Exact's and, where the two differ, with the
// brute-force model's.
//
// Where no Python with numpy is found, Find says so in one line that names
// the package to install; callers skip the peer and go on.
package numpy
