package report

import (
	"fmt"
	"strconv"
)

// histogram is the chart of the pairs: by similarity in bins of 0.05, or
// by distance when the pairs have no similarity. Its sizes are in SVG
// user units.
type histogram struct {
	Title  string
	Axis   string // what the bins are
	Width  int
	Height int
	Bars   []bar
	Max    int // the largest count, the top of the axis
	Pairs  int
	Base   int // the y of the axis
}

// bar is a bin of the histogram, placed.
type bar struct {
	X, Y, W, H int
	Label      string // under the bar, on every other bar when many
	Range      string // the bin, for the bar's title
	Count      int
	CountLabel string // above the bar, when there is room
	TextX      int
}

// Layout of the chart.
const (
	chartWidth  = 640
	chartHeight = 220
	chartLeft   = 44
	chartRight  = 8
	chartTop    = 18
	chartBottom = 40
)

// histogram returns the chart of the pairs added.
func (r *Report) histogram() histogram {
	h := histogram{Width: chartWidth, Height: chartHeight, Pairs: r.pairs, Base: chartHeight - chartBottom}
	type bin struct {
		label, rng string
		n          int
	}
	var bins []bin
	if r.opts.Similarity {
		h.Title, h.Axis = "Pairs by similarity", "similarity (bins of 0.05; each bin holds its lower bound)"
		first := len(r.simBins) - 1
		for i, n := range r.simBins {
			if n > 0 {
				first = min(first, i)
			}
		}
		first = min(first&^1, 12) // from an even bin, at most 0.6
		for i := first; i < len(r.simBins); i++ {
			lo, hi := float64(i)/20, float64(i+1)/20
			rng := fmt.Sprintf("%.2f to %.2f", lo, hi)
			if i == len(r.simBins)-1 {
				rng = "0.95 to 1"
			}
			bins = append(bins, bin{fmt.Sprintf("%.2f", lo), rng, r.simBins[i]})
		}
	} else {
		h.Title, h.Axis = "Pairs by distance", "Hamming distance of the fingerprints (bits)"
		n := max(len(r.distBins), 1)
		for d := range n {
			c := 0
			if d < len(r.distBins) {
				c = r.distBins[d]
			}
			bins = append(bins, bin{strconv.Itoa(d), "distance " + strconv.Itoa(d), c})
		}
	}
	for _, b := range bins {
		h.Max = max(h.Max, b.n)
	}
	plotW := chartWidth - chartLeft - chartRight
	plotH := h.Base - chartTop
	step := plotW / len(bins)
	labelEvery := 1
	if len(bins) > 12 {
		labelEvery = 2
	}
	for i, b := range bins {
		height := 0
		if h.Max > 0 {
			height = b.n * plotH / h.Max
			if b.n > 0 {
				height = max(height, 1)
			}
		}
		x := chartLeft + i*step
		br := bar{X: x + 1, Y: h.Base - height, W: max(step-2, 1), H: height, Range: b.rng, Count: b.n, TextX: x + step/2}
		if i%labelEvery == 0 {
			br.Label = b.label
		}
		if b.n > 0 && step >= 24 {
			br.CountLabel = thousands(int64(b.n))
		}
		h.Bars = append(h.Bars, br)
	}
	return h
}
