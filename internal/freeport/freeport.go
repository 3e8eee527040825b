// Package freeport picks loopback TCP ports for tests that must name a port before the
// process that listens on it starts (an etcd member's peer URL, a server's --secure-port).
//
// A port a test found free by listening on 127.0.0.1:0 comes from the kernel's ephemeral
// range (32768-60999 on Linux), the range every outgoing connection and every other
// 127.0.0.1:0 listener on the machine draws from: between the pick and the bind, one of them
// may take it, and the member fails with "address already in use". Port picks ports below
// that range, at random, so only another test picking the same way can take one, and it
// holds each port it hands out for the life of the process so that two picks in one process
// never return the same port.
package freeport

import (
	"fmt"
	"math/rand/v2"
	"net"
	"strconv"
	"sync"
	"testing"
)

// The range Port picks from: below Linux's default ephemeral range (and the IANA one,
// 49152-65535, that macOS and Windows use), above the ports system services commonly hold.
const (
	lowest  = 20000
	highest = 32767
)

// attempts is how many random ports Port tries before it fails the test.
const attempts = 100

var (
	mu    sync.Mutex
	given = map[int]bool{}
)

// Port returns a port on 127.0.0.1 that was free a moment ago and that this process has not
// returned before, from 20000-32767. It fails the test (t.Fatal) when none of 100 random
// ports in that range can be bound.
func Port(t testing.TB) int {
	t.Helper()
	mu.Lock()
	defer mu.Unlock()
	var last error
	for range attempts {
		p := lowest + rand.IntN(highest-lowest+1)
		if given[p] {
			continue
		}
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		if err != nil {
			last = err
			continue
		}
		_ = l.Close()
		given[p] = true
		return p
	}
	t.Fatalf("no free port in %d-%d after %d tries: %v", lowest, highest, attempts, last)
	return 0
}

// Addr returns "127.0.0.1:<Port(t)>".
func Addr(t testing.TB) string {
	t.Helper()
	return fmt.Sprintf("127.0.0.1:%d", Port(t))
}
