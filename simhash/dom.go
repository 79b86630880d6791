package simhash

import (
	"math"

	"github.com/cespare/xxhash/v2"
	"github.com/simidx/simidx/shingle"
)

// DefaultDOMDecay is the default factor by which a tag's weight shrinks at
// each level of nesting in DOM.
const DefaultDOMDecay = 0.45

// voidTags are HTML elements that have no end tag and no content.
var voidTags = map[string]bool{
	"area": true, "base": true, "br": true, "col": true, "embed": true, "hr": true, "img": true,
	"input": true, "link": true, "meta": true, "param": true, "source": true, "track": true, "wbr": true,
}

// DOM returns the simhash of the structure of an HTML page, whatever its
// text: each start tag is a feature, the XXH64 hash of its lower-cased
// name, weighted by decay to the power of its depth (the html element is at
// depth 0), so pages built from the same template get close fingerprints
// while their outer structure counts most. decay is in (0, 1]; 0 means
// DefaultDOMDecay. End tags close the nearest open element of their name;
// void elements (br, img, ...) and self-closing tags open none. Cost: one
// pass over html; a page without tags gives 0.
func DOM(html []byte, decay float64) uint64 {
	if decay <= 0 || decay > 1 {
		decay = DefaultDOMDecay
	}
	var acc Accumulator
	var stack []string
	var weights [64]int64
	for d := range weights {
		weights[d] = max(1, int64(math.Round(math.Pow(decay, float64(d))*(1<<20))))
	}
	shingle.WalkTags(html, func(name []byte, closing, self bool) {
		if closing {
			for i := len(stack) - 1; i >= 0; i-- {
				if stack[i] == string(name) {
					stack = stack[:i]
					break
				}
			}
			return
		}
		acc.AddWeighted(xxhash.Sum64(name), weights[min(len(stack), len(weights)-1)])
		if !self && !voidTags[string(name)] {
			stack = append(stack, string(name))
		}
	})
	return acc.Sum64()
}
