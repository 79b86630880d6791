package simhash_test

import (
	"fmt"

	"github.com/simidx/simidx/simhash"
)

func ExampleHasher() {
	licence := "Permission is hereby granted, free of charge, to any person obtaining a copy of this " +
		"software and associated documentation files (the Software), to deal in the Software without " +
		"restriction, including without limitation the rights to use, copy, modify, merge, publish, " +
		"distribute, sublicense, and/or sell copies of the Software, and to permit persons to whom the " +
		"Software is furnished to do so, subject to the following conditions."
	h, _ := simhash.NewHasher(nil)
	a := h.Sum64([]byte(licence))
	b := h.Sum64([]byte("<p>" + licence + " Copyright 2024 Example Corp.</p>"))
	c := h.Sum64([]byte("The quick brown fox jumps over the lazy dog"))
	fmt.Println("near duplicate:", simhash.Distance(a, b), "bits; unrelated:", simhash.Distance(a, c), "bits")
	// Output: near duplicate: 2 bits; unrelated: 29 bits
}

func ExampleAccumulator() {
	// Bring your own features: here, tag hashes with weights.
	var acc simhash.Accumulator
	acc.AddWeighted(0xF0F0F0F0F0F0F0F0, 3)
	acc.AddWeighted(0x0F0F0F0F0F0F0F0F, 1)
	acc.Add(0xFFFF0000FFFF0000)
	fmt.Printf("%016x\n", acc.Sum64())
	// Output: f0f0f0f0f0f0f0f0
}

func ExampleDistance() {
	fmt.Println(simhash.Distance(0x8c3a5f7e9ecb3f35, 0x8c3a5f7e9ecb3f21))
	// Output: 2
}
