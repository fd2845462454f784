"""h200-gemm-chain's GEMMs (kernels alone, profiled) against `perfmodel gemm --impl compiled` under a calibration:
per-M |error| median and mean signed, and every M = 1 kernel with the plan the model picks and the kernels cuBLASLt ran.

    python3 validation/results/h200-gemm10/m1_chain.py <calibration.yaml>   (from the repository root)
"""
import json,subprocess,sys,statistics as st
P='build/tools/perfmodel/perfmodel'
cal=sys.argv[1]
rows=[]
for f in ['validation/results/h200-gemm-chain/kernels.json','validation/results/h200-gemm-chain/hf/kernels.json']:
  for c in json.load(open(f))['cases']:
    if not c.get('ok'): continue
    d=json.loads(subprocess.run([P,'gemm','--card','h200','--m',str(c['m']),'--n',str(c['n']),'--k',str(c['k']),'--impl','compiled','--calibration',cal,'--format','json'],capture_output=True,text=True,check=True).stdout)
    e=d['device_time_s']/c['kernel_s']-1
    rows.append((c['m'],c['name'].split('_')[3] if 'hf' not in f else c['name'],c['n'],c['k'],c['kernel_s']*1e6,d['device_time_s']*1e6,e,d['tile'],d['split_k'],'/'.join(n[:40] for n in c['kernel_names'])))
for m in sorted(set(r[0] for r in rows)):
    es=[r[6] for r in rows if r[0]==m]
    print(f"M={m}: n={len(es)} median|e| {st.median([abs(x) for x in es]):.1%} mean {st.mean(es):+.1%}")
for r in rows:
    if r[0]==1: print(f"  N{r[2]:6d} K{r[3]:6d} meas {r[4]:6.2f} pred {r[5]:6.2f} {r[6]:+6.1%} {r[7]} s{r[8]}  {r[9]}")
