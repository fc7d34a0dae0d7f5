module simcheck

go 1.22
