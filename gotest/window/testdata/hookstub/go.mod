module hookstub

go 1.20
