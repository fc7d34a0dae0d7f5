module windowcheck

go 1.22
