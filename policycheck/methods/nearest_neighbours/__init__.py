"""Exact distance to closest record (DCR) under Gower's distance, without an n x m matrix.

Paper 002 (sec. 3 and 5) defines ``DCR = min(D_i1, ..., D_iN)`` over the N
records of a reference set. We compute it exactly, with the nearest record's
smallest index among ties, in three steps:

1. **Exact copies.** A query identical to a reference record has DCR 0; the
   smallest index among its copies is found by a 64-bit hash of every row,
   a stable argsort of each matrix's hashes, one merge of the query and
   reference hashes and an exact comparison of the rows whose hashes agree
   (so a hash collision never makes a false copy). Each matrix is hashed
   and sorted once per call, whatever its role in the jobs; with several
   workers the matrices, and then the references' search structures, are
   prepared on as many threads.
2. **One of the exact searches per job**, chosen by a pilot: the brute
   force and a pruned search (the branch and bound, or without categorical
   columns the projection scan) run on the same few queries and the faster
   one searches the rest (their answers are identical, so the choice
   changes only the time).

   - *Branch and bound* over the categorical codes: the reference records
     are sorted by them, which makes them the leaves of an implicit prefix
     tree (the categorical columns with fewest levels at the top, so a
     1,000-level column does not give the root 1,000 branches). A
     depth-first walk carries the number of categorical mismatches so far,
     a lower bound of ``p * D`` for every record below, and skips a subtree
     as soon as that bound exceeds the best total found; the child matching
     the query is walked first. In a leaf, rows are sorted on the first
     numeric column and scanned outward from the query's value until that
     column's term alone lifts the bound above the best; each record is
     abandoned once its partial sum exceeds the best. It wins when the
     categorical columns discriminate.
   - *Blocked brute force*: every reference record, but in blocks of
     :data:`BLOCK_REFERENCE` records (columns contiguous, so the inner loop
     is SIMD arithmetic) against blocks of :data:`BLOCK_QUERIES` queries (so
     a block is read from cache, not memory, by every query); a block is
     abandoned when every partial sum in it exceeds the best. It wins when
     pruning fails: many continuous columns, categorical columns with many
     levels.
   - *Projection scan* (no categorical column, where the prefix tree is a
     single leaf sorted on one column): the reference records sorted by the
     sum of their values (clipped to [0, 1], a missing value as 0.5), whose
     difference between two records is a lower bound of their ``p * D``;
     from the query's key outward, stopping when the key gap exceeds the
     best. It wins when the queries have near copies: on 30 continuous
     columns (20,000 rows, a noisy bootstrap), synthetic -> training 5.0x
     fewer CPU-seconds than the brute force (8.5 % of the records visited),
     training -> synthetic 1.1x; against records with no near copy (holdout)
     it visits about 60 % and is 0.6x, so the pilot keeps the brute force.

   Every per-feature term is ``min(|a - b|, 1)`` on the encoding: the
   numeric difference when both are present, 1 for a categorical mismatch
   or a missing value against a present one, 0 for two missing values.
3. **The canonical distance.** Both searches add the terms in scan order
   from 0, as :func:`policycheck.methods.gower.gower_sums` does, so their
   sums equal the canonical ones bit for bit; a record whose sum equals the
   best wins when its index is smaller, so ties go to the smallest index
   whatever the walk order. The chosen neighbour's distance is recomputed
   with the canonical formula.

The branch and bound takes its queries in the order of the tree's leaves
(sorted by their categorical codes), so consecutive queries walk the same
branches and scan the same leaves while they are in cache; on 500,000 mixed
rows this made the search about three times faster. Queries are then cut
into chunks, each a separate task of ``executor.map``; the query and
reference arrays are the same objects in every chunk, so the executor sends
them to each worker once. The pilot's time per query also tells the executor
how many workers the search is worth.

Why not a k-d tree (or a vantage-point tree): Gower is an L1 distance on an exact embedding, but on
Adult-like data with no copies (nearest neighbour about 1.5 mismatches away
in some 60 dimensions) a tree stops pruning and is 50x slower than on a
bootstrap release; with 30 continuous columns scipy's cKDTree was no faster
than the branch and bound.

The modules, in the order a search runs:

- :mod:`.search`: :func:`closest_records` (the steps above, for several jobs at once), the pilot;
- :mod:`.copies`: exact copies by row hashes (step 1);
- :mod:`.reference`: a reference prepared for the searches, the executor task of one chunk;
- :mod:`.prefix_tree`, :mod:`.branch_and_bound`: the branch and bound;
- :mod:`.projection`: the projection scan; :mod:`.brute_force`: the blocked brute force.
"""

from policycheck.methods.nearest_neighbours.copies import exact_copy_index
from policycheck.methods.nearest_neighbours.prefix_tree import PrefixTree, build_prefix_tree, tree_column_order
from policycheck.methods.nearest_neighbours.reference import (
    BLOCK_QUERIES,
    BLOCK_REFERENCE,
    BRUTE_FORCE,
    CHECK_EVERY,
    PROJECTION,
    PROJECTION_SLACK,
    TREE,
    _Reference,
    brute_force_search,
    projection_search,
    search_chunk,
    tree_search,
)
from policycheck.methods.nearest_neighbours.search import (
    MAX_CHUNK,
    PILOT_QUERIES,
    THREADS_FROM_ROWS,
    Neighbours,
    SearchJob,
    closest_records,
    compile_search,
    gower_sums_at,
)

__all__ = [
    "BLOCK_QUERIES",
    "BLOCK_REFERENCE",
    "BRUTE_FORCE",
    "CHECK_EVERY",
    "MAX_CHUNK",
    "PILOT_QUERIES",
    "PROJECTION",
    "PROJECTION_SLACK",
    "THREADS_FROM_ROWS",
    "TREE",
    "Neighbours",
    "PrefixTree",
    "SearchJob",
    "_Reference",
    "brute_force_search",
    "build_prefix_tree",
    "closest_records",
    "compile_search",
    "gower_sums_at",
    "exact_copy_index",
    "projection_search",
    "search_chunk",
    "tree_column_order",
    "tree_search",
]
