module example.com/nomodule

go 1.26.0
