#!/bin/bash
cd /work/main
for i in 1 2 3; do
  for tb in 8 32; do
    [ "$i" = 1 ] && [ "$tb" = 8 ] && continue
    echo "$(date +%T) policy tb=$tb run $i load $(cut -d' ' -f1 /proc/loadavg)" >> /tmp/b/log
    node bin/curricula.mjs bench policy --configs base --workers 1,2 --train-batch $tb --json > /tmp/b/p$tb-$i.json 2> /tmp/b/p$tb-$i.err
  done
done
for i in 1 2 3; do
  echo "$(date +%T) train run $i load $(cut -d' ' -f1 /proc/loadavg)" >> /tmp/b/log
  node bin/curricula.mjs bench train --preset base --steps 3 --workers 1,2 --json > /tmp/b/t-$i.json 2> /tmp/b/t-$i.err
done
echo "$(date +%T) demo load $(cut -d' ' -f1 /proc/loadavg)" >> /tmp/b/log
/usr/bin/time -v npm start > /tmp/b/demo.out 2> /tmp/b/demo.err
echo "$(date +%T) done load $(cut -d' ' -f1 /proc/loadavg)" >> /tmp/b/log
