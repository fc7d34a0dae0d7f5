module measure

go 1.26
