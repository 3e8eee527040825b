// Package v1 is the only version of shop.example.com, so it is also the hub. Its types carry
// every validation marker generators/validation supports; zz_generated.validation.go is the
// generator's golden output, and validation_test.go checks that it behaves.
// +groupName=shop.example.com
package v1
