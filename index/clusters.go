package index

import (
	"context"
	"fmt"
	"slices"
	"strings"

	bolt "go.etcd.io/bbolt"
)

// Cluster is a connected component of the graph whose edges are the pairs
// reported by Pairs: a group of near-duplicates.
type Cluster struct {
	// Number is the position of the cluster in the order of
	// representatives, from 0: stable as long as the index is unchanged.
	Number int `json:"cluster"`

	// Representative is the smallest ID of the cluster with SingleLinkage,
	// its center with CenterLinkage.
	Representative string `json:"representative"`

	// IDs are the IDs of the documents of the cluster, sorted; at least 2.
	IDs []string `json:"ids"`

	// Members are the documents of the cluster in the order of IDs.
	Members []Member `json:"-"`
}

// Member is a document of a cluster.
type Member struct {
	// ID is the document's ID.
	ID string
	// Seq is the document's place in the order of addition: a document
	// added after another has a larger Seq; a document that replaced
	// another (same ID) stored by an earlier commit keeps the replaced
	// document's Seq. Of documents with one ID in one Add call or Load
	// batch, the last is stored, with the Seq of the last.
	Seq uint32
	// Fingerprint is the document's 64-bit fingerprint.
	Fingerprint uint64
	// TextHash is the hash of the document's canonical text, equal for
	// exact copies; valid when Text is set (a document added with text,
	// not as a fingerprint).
	TextHash uint64
	Text     bool
}

// Clusters calls fn for every cluster of two or more documents in the
// order of their representatives, until fn returns an error, which
// Clusters then returns. Clusters are made of the pairs of Pairs with the
// same options (opts.Limit is ignored), joined as opts.Linkage says: with
// SingleLinkage (the default) they are the connected components, computed
// with union-find over document numbers, from one snapshot, which
// costs what Pairs costs, plus 4 bytes per document number ever allocated
// and the IDs of the documents in clusters in memory. With CenterLinkage
// (see Linkage) the pairs are kept in memory, 8 bytes each, with a bit per
// document number, the Member of every document that has a pair and 12
// bytes more per such document, and sorted twice: what Pairs costs, plus
// O(P log P) for P pairs.
// opts.CenterOrder is called after the read transaction.
//
// Cancelling ctx stops the scan with ctx.Err(); a ctx already cancelled
// stops it before it begins.
func (x *Index) Clusters(ctx context.Context, opts *QueryOptions, fn func(Cluster) error) error {
	if err := x.checkOpen(); err != nil {
		return err
	}
	if err := x.settle(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	q, err := x.resolve(opts)
	if err != nil {
		return err
	}
	q.limit = 0
	var clusters []Cluster
	linkage := SingleLinkage
	if opts != nil {
		linkage = opts.Linkage
	}
	switch linkage {
	case SingleLinkage:
	case CenterLinkage:
		edges, ms, err := x.pairGraph(ctx, q)
		if err != nil {
			return err
		}
		clusters = centerClusters(edges, ms, opts.CenterOrder)
		return emitClusters(clusters, fn)
	default:
		return fmt.Errorf("%w: unknown linkage %d", ErrSettings, int(linkage))
	}
	err = x.viewFiltered(func(tx *bolt.Tx, bf *bandFilter) error {
		m := x.readMeta(tx)
		parent := make([]uint32, m.next)
		for i := range parent {
			parent[i] = uint32(i)
		}
		find := func(n uint32) uint32 {
			for parent[n] != n {
				parent[n] = parent[parent[n]]
				n = parent[n]
			}
			return n
		}
		linked := false
		err := x.pairs(ctx, tx, bf, q, func(a, b uint32, _ int, _ float64) error {
			if a >= m.next || b >= m.next {
				return nil
			}
			ra, rb := find(a), find(b)
			if ra != rb {
				parent[max(ra, rb)] = min(ra, rb)
			}
			linked = true
			return nil
		})
		if err != nil || !linked {
			return err
		}
		// Members, grouped by root.
		size := make(map[uint32]int)
		for i := range parent {
			if r := find(uint32(i)); r != uint32(i) {
				size[r]++
			}
		}
		byRoot := make(map[uint32]int, len(size))
		docs := tx.Bucket(bucketDocs)
		for i := range parent {
			r := find(uint32(i))
			if r == uint32(i) && size[r] == 0 {
				continue
			}
			c, ok := byRoot[r]
			if !ok {
				c = len(clusters)
				byRoot[r] = c
				clusters = append(clusters, Cluster{Members: make([]Member, 0, size[r]+1)})
			}
			v := getRecord(docs, uint32(i))
			if len(v) < 9 {
				return fmt.Errorf("%w: document %d of a pair has no record", ErrCorrupt, i)
			}
			clusters[c].Members = append(clusters[c].Members, x.member(uint32(i), v))
		}
		return nil
	})
	if err != nil {
		return boltErr(err)
	}
	return emitClusters(clusters, fn)
}

// emitClusters sorts the members of each of clusters by ID, sets its IDs
// and, if it has none (single linkage), its Representative to the
// smallest ID, then numbers the clusters in the order of representatives
// and calls fn for each, until fn returns an error.
func emitClusters(clusters []Cluster, fn func(Cluster) error) error {
	for i := range clusters {
		c := &clusters[i]
		slices.SortFunc(c.Members, func(a, b Member) int { return strings.Compare(a.ID, b.ID) })
		c.IDs = make([]string, len(c.Members))
		for j, m := range c.Members {
			c.IDs[j] = m.ID
		}
		if c.Representative == "" {
			c.Representative = c.IDs[0]
		}
	}
	slices.SortFunc(clusters, func(a, b Cluster) int { return strings.Compare(a.Representative, b.Representative) })
	for i := range clusters {
		clusters[i].Number = i
		if err := fn(clusters[i]); err != nil {
			return err
		}
	}
	return nil
}

// SimilarID returns the representative of the group of the stored document
// id, as nshash's get_similar does: the smallest ID of the documents
// connected to it by QueryID with nil options, or id itself when it has no
// near duplicate. That is the Representative of its cluster in Clusters
// with nil options (with MethodDOM or MethodMfonda, exact copies whose
// fingerprints differ by more than k join too). Grouping a corpus by
// SimilarID gives the clusters plus one group per unmatched document; to
// group a whole corpus, Clusters is cheaper (one scan). It fails with
// ErrNotFound if there is no such document.
//
// It walks the document's cluster from the document, a query per member
// (Query's cost each), in one read transaction: cheap for the small
// clusters of near duplicates, as costly as the cluster is large.
func (x *Index) SimilarID(id string) (string, error) {
	if err := x.checkOpen(); err != nil {
		return "", err
	}
	if err := x.settle(); err != nil {
		return "", err
	}
	q, err := x.resolve(nil)
	if err != nil {
		return "", err
	}
	rep := id
	err = x.viewFiltered(func(tx *bolt.Tx, bf *bandFilter) error {
		n, r, err := x.lookup(tx, id, true)
		if err != nil {
			return err
		}
		docs := tx.Bucket(bucketDocs)
		seen := map[uint32]bool{n: true}
		queue := []uint32{n}
		for len(queue) > 0 {
			a := queue[0]
			queue = queue[1:]
			if a != n {
				if r, err = decodeRecord(getRecord(docs, a), x.lay, true); err != nil {
					return err
				}
				if r.id < rep {
					rep = r.id
				}
			}
			ms, err := x.find(tx, bf, probe{fp: r.fp, text: r.text, exact: r.exact, sig: r.sig, bands: r.bands, set: r.set, short: r.short, self: int64(a)}, q)
			if err != nil {
				return err
			}
			for _, m := range ms {
				if !seen[m.n] {
					seen[m.n] = true
					queue = append(queue, m.n)
				}
			}
		}
		return nil
	})
	if err != nil {
		return "", boltErr(err)
	}
	return rep, nil
}
