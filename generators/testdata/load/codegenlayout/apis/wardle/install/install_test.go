package install
