package index

import (
	"cmp"
	"context"
	"fmt"
	mathbits "math/bits"
	"slices"

	bolt "go.etcd.io/bbolt"
)

// Linkage is how Clusters joins the pairs of near duplicates into
// clusters (QueryOptions.Linkage).
type Linkage int

const (
	// SingleLinkage makes a cluster of every connected group of pairs: two
	// documents are in one cluster if a chain of pairs joins them. Chains
	// can join documents that are far apart (a family of licences that
	// share boilerplate, each pair at the threshold): a member need not be
	// a near duplicate of the representative, nor of any member but one.
	SingleLinkage Linkage = iota

	// CenterLinkage makes clusters around centers, greedily: the documents
	// that have a pair are taken in the order of QueryOptions.CenterOrder
	// (the order of addition by default); one that no center has taken
	// becomes a center and takes every document paired with it that no
	// center has taken yet. A cluster is a center and what it took, at
	// least one document: every member is a near duplicate of its center
	// (the two are a pair, by the rule of the query), the center is the
	// first of its cluster in the order, and no two centers are a pair. A
	// document whose every near duplicate went to other centers before its
	// turn is in no cluster. The Representative of a cluster is its
	// center.
	CenterLinkage
)

// String returns "single" or "center".
func (l Linkage) String() string {
	switch l {
	case SingleLinkage:
		return "single"
	case CenterLinkage:
		return "center"
	}
	return fmt.Sprintf("Linkage(%d)", int(l))
}

// centerClusters returns the clusters of center linkage over the pairs
// edges (each the document numbers a, b of a pair as a<<32|b) of the
// documents ms, sorted by document number, in the order given by order
// (nil: by Seq), each cluster's Members in the order of ms and its
// Representative its center. Cost: a sort of ms and of the edges, and a
// pass over the edges; memory 12 bytes per document of ms, and 4 per
// document number up to the last of ms when they are one in 8 or more.
func centerClusters(edges []uint64, ms []Member, order func(a, b Member) int) []Cluster {
	// rank[i] is the place of ms[i] in the order, and byRank its inverse.
	byRank := make([]int32, len(ms))
	for i := range byRank {
		byRank[i] = int32(i)
	}
	if order != nil {
		slices.SortStableFunc(byRank, func(a, b int32) int {
			return cmp.Or(order(ms[a], ms[b]), cmp.Compare(ms[a].Seq, ms[b].Seq))
		})
	}
	rank := make([]int32, len(ms))
	for r, i := range byRank {
		rank[i] = int32(r)
	}
	// The rank of each document number of ms, looked up once per end of an
	// edge: from a table when ms holds one number in 8 or more up to its
	// last (a binary search over ms costs a cache miss a step), else by a
	// binary search.
	rankOf := func(n uint32) int32 {
		i, _ := slices.BinarySearchFunc(ms, n, func(m Member, n uint32) int { return cmp.Compare(m.Seq, n) })
		return rank[i]
	}
	if len(ms) > 0 && int(ms[len(ms)-1].Seq)/8 < len(ms) {
		table := make([]int32, int(ms[len(ms)-1].Seq)+1)
		for i, m := range ms {
			table[m.Seq] = rank[i]
		}
		rankOf = func(n uint32) int32 { return table[n] }
	}
	// Each edge by ranks, the earlier first, in the order of its earlier
	// document, then of its later one.
	for i, e := range edges {
		a, b := rankOf(uint32(e>>32)), rankOf(uint32(e))
		edges[i] = uint64(min(a, b))<<32 | uint64(max(a, b))
	}
	const none = -1
	center := Centers(len(ms), edges) // by rank: the center, itself, or none
	// The members of each cluster are counted first, and their slices
	// cut from one array: size[c] counts those of the center of rank c.
	size := make([]int32, len(center))
	count, total := 0, 0
	for r, c := range center {
		if c == none || c == int32(r) {
			continue
		}
		if size[c] == 0 {
			size[c] = 1 // the center
			count++
			total++
		}
		size[c]++
		total++
	}
	all := make([]Member, total)
	clusters := make([]Cluster, 0, count)
	at := make([]int32, len(center)) // the cluster of the center of rank c, plus 1 once made
	off := 0
	for r, c := range center {
		if c == none || c == int32(r) {
			continue
		}
		if at[c] == 0 {
			m := ms[byRank[c]]
			n := int(size[c])
			clusters = append(clusters, Cluster{Representative: m.ID, Members: append(all[off:off:off+n], m)})
			off += n
			at[c] = int32(len(clusters))
		}
		k := at[c] - 1
		clusters[k].Members = append(clusters[k].Members, ms[byRank[r]])
	}
	return clusters
}

// Centers returns the center of each of n documents under center linkage
// (CenterLinkage), the documents numbered 0 to n-1 in the order in which
// they are taken: center[i] is i for a center, the center that took i, or
// -1 for a document in no cluster. edges are the pairs, each as a<<32|b
// with a < b; Centers sorts them. It is the greedy step of Clusters with
// CenterLinkage, for computing clusters outside an index (one connected
// component at a time gives the same centers: components do not interact).
// Cost: a sort of the edges and a pass over them; 4 bytes per document.
func Centers(n int, edges []uint64) []int32 {
	slices.Sort(edges)
	const none = -1
	center := make([]int32, n)
	for i := range center {
		center[i] = none
	}
	for _, e := range edges {
		a, b := int32(e>>32), int32(uint32(e))
		if center[a] == none {
			center[a] = a // its turn: no center took it
		}
		if center[a] == a && center[b] == none {
			center[b] = a
		}
	}
	return center
}

// pairGraph returns the pairs of q, each as its document numbers a<<32|b,
// and the Member of every document in a pair, sorted by document number,
// read from one snapshot. Cost: what Pairs costs, 8 bytes a pair,
// a bit per document number, a record read per document in a pair, and a
// sort of the pairs, on a goroutine of its own while the records are read.
func (x *Index) pairGraph(ctx context.Context, q queryParams) ([]uint64, []Member, error) {
	var edges []uint64
	var ms []Member
	err := x.viewFiltered(func(tx *bolt.Tx, bf *bandFilter) error {
		m := x.readMeta(tx)
		paired := make([]uint64, (m.next+63)/64) // a bit per document number
		err := x.pairs(ctx, tx, bf, q, func(a, b uint32, _ int, _ float64) error {
			if a >= m.next || b >= m.next || a == b {
				return nil
			}
			edges = append(edges, uint64(min(a, b))<<32|uint64(max(a, b)))
			paired[a/64] |= 1 << (a % 64)
			paired[b/64] |= 1 << (b % 64)
			return nil
		})
		if err != nil {
			return err
		}
		// The edges are sorted on another goroutine while the members
		// are read; it is waited for also when a damaged record ends
		// the read with a panic (see recoverCorrupt).
		sorted := make(chan struct{})
		go func() {
			defer close(sorted)
			slices.Sort(edges)
			edges = slices.Compact(edges)
		}()
		defer func() { <-sorted }()
		ms, err = x.pairedMembers(tx.Bucket(bucketDocs).Cursor(), paired)
		return err
	})
	return edges, ms, boltErr(err)
}

// pairedMembers returns the Member of every document whose bit is set in
// paired (bit n%64 of word n/64 for document n), in document order, read
// through c, a cursor of the docs bucket. It scans the records from the
// first such document when at least one in pairedScan of those from there
// on is one, and seeks each one's otherwise. Cost: a record read and an
// ID's allocation a member, and with the scan a step per record. A damaged
// group of records is an ErrCorrupt (a groupDamage panic, see seekRecord),
// with the scan also one that holds no such document.
func (x *Index) pairedMembers(c *bolt.Cursor, paired []uint64) ([]Member, error) {
	count, first, last := 0, -1, 0
	for w, bits := range paired {
		if bits == 0 {
			continue
		}
		if first < 0 {
			first = w*64 + mathbits.TrailingZeros64(bits)
		}
		last = w*64 + 63 - mathbits.LeadingZeros64(bits)
		count += mathbits.OnesCount64(bits)
	}
	if count == 0 {
		return nil, nil
	}
	ms := make([]Member, 0, count)
	missing := func(n uint32) error {
		return fmt.Errorf("%w: document %d of a pair has no record", ErrCorrupt, n)
	}
	isPaired := func(n uint32) bool { return paired[n/64]&(1<<(n%64)) != 0 }
	if count*pairedScan < last-first+1 {
		for w, bits := range paired {
			for ; bits != 0; bits &= bits - 1 {
				n := uint32(w*64 + mathbits.TrailingZeros64(bits))
				v := seekRecord(c, n)
				if len(v) < 9 {
					return nil, missing(n)
				}
				ms = append(ms, x.member(n, v))
			}
		}
		return ms, nil
	}
	// The next paired document not yet read is want.
	want := uint32(first)
	next := func(n uint32) uint32 {
		for n++; int(n) <= last && !isPaired(n); n++ {
		}
		return n
	}
	for n, v := range eachRecord(c, want) {
		if n > want {
			return nil, missing(want)
		}
		if n < want {
			continue
		}
		if len(v) < 9 {
			return nil, missing(n)
		}
		ms = append(ms, x.member(n, v))
		if want = next(n); int(want) > last {
			return ms, nil
		}
	}
	return nil, missing(want)
}

// pairedMembers scans the records when one in pairedScan of them or more
// are wanted: a step of a cursor costs a few times less than a seek.
const pairedScan = 8
