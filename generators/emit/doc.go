// Package emit holds what every generator shares: the Generator interface, the one file
// header, the fixed import-name table and the jennifer helpers that render a file
// deterministically and gofmt-clean.
package emit
