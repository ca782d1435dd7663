# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 the libfallocate authors (see AUTHORS)
# Chart of bench/report.sh's ratios.dat: one bar per scenario, glibc time
# divided by ours (log scale), the issue's target as a mark on each bar.
# gnuplot -e "datafile='...'; outfile='...'; machine='...'" ratios.gp
if (!exists("machine")) machine = ""
set terminal pngcairo size 1200,650 font "sans,10"
set bmargin 7
set rmargin 8
set output outfile
set title "libfallocate vs glibc 2.36 posix\\_fallocate: glibc time / ours (higher is better for ours)\n{/*0.8 ".machine."}"
set logscale y
set yrange [0.1:*]
set grid ytics
set ylabel "ratio (log scale)"
set style fill solid 0.6 border -1
set boxwidth 0.6
set xtics rotate by -30 font ",9" noenhanced
set key top left
set label 1 "1.0" at graph 1.005, first 1 left font ",8"
# Column 4: 1 target met, 0 missed, 2 no target.
color(v) = v == 1 ? 0x4a9a5a : v == 0 ? 0xc04040 : 0x888888
plot datafile using 0:2:(color($4)):xtic(1) with boxes lc rgb variable notitle, \
     "" using 0:2:(sprintf($2 >= 100 ? "%.0f" : "%.3g", $2)) with labels offset 0,0.7 font ",8" notitle, \
     NaN with boxes lc rgb "#4a9a5a" title "target met", \
     NaN with boxes lc rgb "#c04040" title "target missed", \
     "" using 0:($3 > 0 ? $3 : 1/0) with points pt 9 ps 1.6 lc rgb "#c03030" title "target (minimum)", \
     1 with lines dt 2 lc rgb "#555555" notitle
