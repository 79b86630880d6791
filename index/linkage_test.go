package index_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/simidx/simidx/index"
)

// bruteCenters returns the clusters of center linkage by its definition,
// one document at a time: ids in the order of the centers, each that no
// center took becoming a center and taking every document paired with it
// that is not yet taken. It returns the clusters of two or more, each as
// its center then its other members sorted, sorted by center, and the
// center of every document of a pair (itself for a center).
func bruteCenters(order []string, pairs map[[2]string]bool) ([][]string, map[string]string) {
	adj := map[string][]string{}
	for p := range pairs {
		adj[p[0]] = append(adj[p[0]], p[1])
		adj[p[1]] = append(adj[p[1]], p[0])
	}
	center := map[string]string{}
	for _, id := range order {
		if _, taken := center[id]; taken || len(adj[id]) == 0 {
			continue
		}
		center[id] = id
		for _, n := range adj[id] {
			if _, taken := center[n]; !taken {
				center[n] = id
			}
		}
	}
	groups := map[string][]string{}
	for id, c := range center {
		if id != c {
			groups[c] = append(groups[c], id)
		}
	}
	var out [][]string
	for c, ms := range groups {
		slices.Sort(ms)
		out = append(out, append([]string{c}, ms...))
	}
	slices.SortFunc(out, func(a, b []string) int { return strings.Compare(a[0], b[0]) })
	return out, center
}

// centerClusters returns the clusters of x under CenterLinkage with opts
// (its Linkage set), each as its representative then its other members
// sorted, checking what every cluster must be: numbered in order, IDs
// sorted and in Members, two or more, the representative among them.
func centerClusters(t *testing.T, x *index.Index, opts index.QueryOptions) [][]string {
	t.Helper()
	opts.Linkage = index.CenterLinkage
	var out [][]string
	err := x.Clusters(context.Background(), &opts, func(c index.Cluster) error {
		if c.Number != len(out) || len(c.IDs) < 2 || !slices.IsSorted(c.IDs) || !slices.Contains(c.IDs, c.Representative) {
			return fmt.Errorf("cluster %d: %+v", len(out), c)
		}
		if len(out) > 0 && out[len(out)-1][0] >= c.Representative {
			return fmt.Errorf("cluster %d: representative %s after %s", c.Number, c.Representative, out[len(out)-1][0])
		}
		cl := []string{c.Representative}
		for i, m := range c.Members {
			if m.ID != c.IDs[i] {
				return fmt.Errorf("cluster %d: member %d is %s, ID %s", c.Number, i, m.ID, c.IDs[i])
			}
			if m.ID != c.Representative {
				cl = append(cl, m.ID)
			}
		}
		out = append(out, cl)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// checkCenters checks clusters (as centerClusters returns them) against
// what defines center linkage, given the pairs and the order of the
// documents: every member is paired with its center and comes after it;
// a document of a pair is a center (of a cluster or alone) exactly when
// no earlier document paired with it is one; a document that is not a
// center is in the cluster of the first center paired with it.
func checkCenters(t *testing.T, clusters [][]string, pairs map[[2]string]bool, order []string) {
	t.Helper()
	rank := map[string]int{}
	for i, id := range order {
		rank[id] = i
	}
	paired := func(a, b string) bool { return pairs[[2]string{min(a, b), max(a, b)}] }
	adj := map[string][]string{}
	for p := range pairs {
		adj[p[0]] = append(adj[p[0]], p[1])
		adj[p[1]] = append(adj[p[1]], p[0])
	}
	centerOf := map[string]string{}
	for _, c := range clusters {
		for _, m := range c {
			if _, dup := centerOf[m]; dup {
				t.Fatalf("%s is in two clusters", m)
			}
			centerOf[m] = c[0]
		}
		for _, m := range c[1:] {
			if !paired(c[0], m) {
				t.Fatalf("%s is in the cluster of %s, and they are no pair", m, c[0])
			}
			if rank[m] < rank[c[0]] {
				t.Fatalf("%s comes before its center %s", m, c[0])
			}
		}
	}
	isCenter := func(id string) bool { c, ok := centerOf[id]; return !ok || c == id }
	for _, id := range order {
		ns := adj[id]
		if len(ns) == 0 {
			if _, ok := centerOf[id]; ok {
				t.Fatalf("%s has no pair and is in a cluster", id)
			}
			continue
		}
		slices.SortFunc(ns, func(a, b string) int { return cmp.Compare(rank[a], rank[b]) })
		first := "" // the first center paired with id, before it
		for _, n := range ns {
			if rank[n] < rank[id] && isCenter(n) {
				first = n
				break
			}
		}
		switch {
		case first == "" && !isCenter(id):
			t.Fatalf("%s has no earlier center among its pairs, and is in the cluster of %s", id, centerOf[id])
		case first != "" && centerOf[id] != first:
			t.Fatalf("%s is in the cluster of %q, not of %s, the first center paired with it", id, centerOf[id], first)
		}
	}
}

// TestCenterLinkageFingerprints checks CenterLinkage against brute force
// on fingerprints with planted chains and stars, whose pairs (within k)
// are computed without the index, in the order of addition, its reverse,
// by degree and at random.
func TestCenterLinkageFingerprints(t *testing.T) {
	const k = 3
	rng := rand.New(rand.NewPCG(24, 1))
	c := &corpus{}
	for len(c.fps) < 4000 {
		if rng.IntN(3) == 0 { // a family: chains and stars from a root
			root := rng.Uint64()
			c.add(root)
			fp := root
			for range rng.IntN(8) + 1 {
				if rng.IntN(2) == 0 {
					fp = root
				}
				fp = flip(rng, fp, 1+rng.IntN(k))
				c.add(fp)
			}
		} else {
			c.add(rng.Uint64())
		}
	}
	pairs, degree := fingerprintPairs(c, k)
	x := newIndex(t, &index.Settings{MaxDistance: k, ExpectedDocs: len(c.fps)})
	if _, err := x.Load(context.Background(), c.docs(), nil); err != nil {
		t.Fatal(err)
	}
	perm := rng.Perm(len(c.ids))
	random := map[string]int{}
	for i, id := range c.ids {
		random[id] = perm[i]
	}
	for _, tc := range append(seqOrders(),
		centerOrder{"degree", func(a, b index.Member) int { return cmp.Compare(degree[b.ID], degree[a.ID]) },
			func(a, b string) int { return cmp.Or(cmp.Compare(degree[b], degree[a]), strings.Compare(a, b)) }},
		centerOrder{"random", func(a, b index.Member) int { return cmp.Compare(random[a.ID], random[b.ID]) },
			func(a, b string) int { return cmp.Compare(random[a], random[b]) }},
	) {
		t.Run(tc.name, func(t *testing.T) { checkCenterOrder(t, x, c.ids, pairs, tc, 300) })
	}
	// The planted families chain: single linkage joins more than center
	// linkage, which leaves out no document it joins but splits them.
	single := 0
	if err := x.Clusters(context.Background(), nil, func(index.Cluster) error { single++; return nil }); err != nil {
		t.Fatal(err)
	}
	if center := len(centerClusters(t, x, index.QueryOptions{})); center <= single {
		t.Errorf("%d clusters with center linkage, %d with single: the chains are not split", center, single)
	}
}

// TestCenterLinkageSparse checks CenterLinkage against brute force when
// few documents are in pairs (fewer than one in 8 of the numbers), whose
// members are read by a seek each and placed in the order by a binary
// search: a few planted families among many random fingerprints.
func TestCenterLinkageSparse(t *testing.T) {
	const k = 3
	rng := rand.New(rand.NewPCG(25, 1))
	c := &corpus{}
	for i := 0; len(c.fps) < 3000; i++ {
		if i%100 == 50 {
			root := rng.Uint64()
			c.add(root)
			c.add(flip(rng, root, 1+rng.IntN(k)))
			c.add(flip(rng, root, 1+rng.IntN(k)))
		} else {
			c.add(rng.Uint64())
		}
	}
	pairs, degree := fingerprintPairs(c, k)
	if len(degree) == 0 || len(degree)*8 >= len(c.fps) {
		t.Fatalf("%d of %d documents in pairs; the test wants a few", len(degree), len(c.fps))
	}
	x := newIndex(t, &index.Settings{MaxDistance: k, ExpectedDocs: len(c.fps)})
	if _, err := x.Load(context.Background(), c.docs(), nil); err != nil {
		t.Fatal(err)
	}
	for _, tc := range seqOrders() {
		t.Run(tc.name, func(t *testing.T) { checkCenterOrder(t, x, c.ids, pairs, tc, 1) })
	}
}

// fingerprintPairs returns the pairs of documents of c within k bits,
// computed without the index (each by its IDs in input order), and the
// number of pairs of each document in one.
func fingerprintPairs(c *corpus, k int) (pairs map[[2]string]bool, degree map[string]int) {
	pairs, degree = map[[2]string]bool{}, map[string]int{}
	for i := range c.fps {
		for j := i + 1; j < len(c.fps); j++ {
			if bits.OnesCount64(c.fps[i]^c.fps[j]) <= k {
				pairs[[2]string{c.ids[i], c.ids[j]}] = true
				degree[c.ids[i]]++
				degree[c.ids[j]]++
			}
		}
	}
	return pairs, degree
}

// centerOrder is an order of the centers: as QueryOptions.CenterOrder
// takes it, and the same order of the IDs.
type centerOrder struct {
	name  string
	order func(a, b index.Member) int
	less  func(a, b string) int
}

// seqOrders are the orders of addition and its reverse, of documents
// whose IDs sort in input order.
func seqOrders() []centerOrder {
	return []centerOrder{
		{"input", nil, strings.Compare},
		{"reverse", func(a, b index.Member) int { return cmp.Compare(b.Seq, a.Seq) }, func(a, b string) int { return strings.Compare(b, a) }},
	}
}

// checkCenterOrder checks the clusters of CenterLinkage of x in order tc
// against brute force over pairs of the documents ids, which must find
// atLeast clusters for the test to mean something.
func checkCenterOrder(t *testing.T, x *index.Index, ids []string, pairs map[[2]string]bool, tc centerOrder, atLeast int) {
	t.Helper()
	order := slices.Clone(ids)
	slices.SortStableFunc(order, tc.less)
	want, _ := bruteCenters(order, pairs)
	got := centerClusters(t, x, index.QueryOptions{CenterOrder: tc.order})
	if len(want) < atLeast {
		t.Fatalf("only %d clusters; make the test harder", len(want))
	}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("%d clusters, brute force %d; first difference at %v", len(got), len(want), firstDiff(got, want))
	}
	checkCenters(t, got, pairs, order)
}

// firstDiff returns the first cluster of a that b does not have at the
// same place, and b's.
func firstDiff(a, b [][]string) [2][]string {
	for i := range min(len(a), len(b)) {
		if !slices.Equal(a[i], b[i]) {
			return [2][]string{a[i], b[i]}
		}
	}
	return [2][]string{}
}

// TestCenterLinkageTexts checks CenterLinkage on real texts with planted
// edits, under the default MinHash rule and under -k alone: the clusters
// are those of brute force over the pairs Pairs reports, and every member
// is among the matches of QueryID of its center, the index's rule.
func TestCenterLinkageTexts(t *testing.T) {
	docs := verifyCorpus(t)
	x := newIndex(t, &index.Settings{MaxDistance: 6})
	if _, err := x.Load(context.Background(), seqDocs(docs), nil); err != nil {
		t.Fatal(err)
	}
	var order []string // the order of addition
	if err := x.Members(context.Background(), func(m index.Member) error { order = append(order, m.ID); return nil }); err != nil {
		t.Fatal(err)
	}
	for _, opts := range []index.QueryOptions{{}, {MinSimilarity: 0.4}, {MaxDistance: 6}} {
		t.Run(fmt.Sprintf("k=%d,s=%v", opts.MaxDistance, opts.MinSimilarity), func(t *testing.T) {
			pairs := map[[2]string]bool{}
			err := x.Pairs(context.Background(), &opts, func(p index.Pair) error {
				pairs[[2]string{p.A, p.B}] = true
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			want, _ := bruteCenters(order, pairs)
			got := centerClusters(t, x, opts)
			if len(want) < 20 {
				t.Fatalf("only %d clusters", len(want))
			}
			if !slices.EqualFunc(got, want, slices.Equal) {
				t.Fatalf("%d clusters, brute force %d; first difference at %v", len(got), len(want), firstDiff(got, want))
			}
			checkCenters(t, got, pairs, order)
			for _, c := range got {
				ms, err := x.QueryID(c[0], &opts)
				if err != nil {
					t.Fatal(err)
				}
				for _, m := range c[1:] {
					if !slices.ContainsFunc(ms, func(q index.Match) bool { return q.ID == m }) {
						t.Errorf("%s is in the cluster of %s and not among its matches", m, c[0])
					}
				}
			}
		})
	}
}

// TestCenterLinkageErrors checks an unknown linkage and a cancelled
// context.
func TestCenterLinkageErrors(t *testing.T) {
	x := nearPair(t)
	err := x.Clusters(context.Background(), &index.QueryOptions{Linkage: 7}, func(index.Cluster) error { return nil })
	if !errors.Is(err, index.ErrSettings) {
		t.Errorf("linkage 7: %v, want ErrSettings", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	called := 0
	err = x.Clusters(ctx, &index.QueryOptions{Linkage: index.CenterLinkage}, func(index.Cluster) error { called++; return nil })
	if !errors.Is(err, context.Canceled) || called > 0 {
		t.Errorf("cancelled: %v, %d calls", err, called)
	}
	stop := errors.New("stop")
	err = x.Clusters(context.Background(), &index.QueryOptions{Linkage: index.CenterLinkage}, func(c index.Cluster) error {
		if c.Representative != "a" || !slices.Equal(c.IDs, []string{"a", "b"}) {
			t.Errorf("cluster %+v", c)
		}
		return stop
	})
	if err != stop {
		t.Errorf("fn's error: got %v", err)
	}
	if index.SingleLinkage.String() != "single" || index.CenterLinkage.String() != "center" {
		t.Errorf("names %s %s", index.SingleLinkage, index.CenterLinkage)
	}
}
