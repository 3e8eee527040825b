// Package order is the hub.
//
// +groupName=order.example.com
package order
