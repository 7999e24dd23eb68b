import sys
d=int(sys.argv[1])
s='mix.network @n precision(f32) (%x: tensor<1xf32>) -> tensor<1xf32> {\n'
for i in range(d):
    src='%x' if i==0 else '%%a%d'%(i-1)
    s+='%%y%d = mix.block (%%a%d = %s) : (tensor<1xf32>) -> tensor<1xf32> {\n'%(i,i,src)
s+='%%r = mix.relu %%a%d : (tensor<1xf32>) -> tensor<1xf32>\n'%(d-1)
for i in range(d):
    v='%r' if i==0 else '%%y%d'%(d-i)
    s+='mix.yield %s : tensor<1xf32>\n}\n'%v
s+='mix.return %y0 : tensor<1xf32>\n}\n'
open(sys.argv[2],'w').write(s)
