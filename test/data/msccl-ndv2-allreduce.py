# msccl-tools' NDv2 AllReduce, examples/mscclang/allreduce_ndv2.py of microsoft/msccl-tools and
# Azure/msccl-tools, with its calls written in the current MSCCLang API: that example still calls
# c.reduce(rank, buffer=..., index=...) and c.send(...), which the language no longer has; here
# they are chunk(rank, buffer, index, size).reduce(c) and c.copy(...), same algorithm, same order.
# It wrote test/data/msccl-ndv2-allreduce.xml (instances 1) with Azure/msccl-tools 7e7d6bf:
#   PYTHONPATH=<msccl-tools checkout> python3 msccl-ndv2-allreduce.py 1 > msccl-ndv2-allreduce.xml
# and test/data/msccl-ndv2-allreduce-2.xml (instances 2, after a comment) with 2 for 1.
# (msccl-tools' package imports lxml, z3-solver, humanfriendly, tabulate and igraph; writing this
# program needs only lxml.etree, which xml.etree.ElementTree can stand in for.)
import argparse
from msccl.language import *
from msccl.topologies import *
from msccl.language.collectives import AllReduce

def allreduce(instances):
    size = 8
    num_local_gpus = size
    topology = fully_connected(size)
    logical_chunk = size
    collective = AllReduce(size, logical_chunk, True)
    with MSCCLProgram("allreduce_ndv2", topology, collective, instances, interleaved_replication=False):
        # local reduce_scatter
        for lc in range(num_local_gpus//2):
            for r in range(num_local_gpus):
                if lc == (r % (num_local_gpus//2)):
                    continue
                within_socket_nghr = lc + (4 if (r >= num_local_gpus//2) else 0)
                index = lc * 2
                c = chunk(r, Buffer.input, index, 2)
                chunk(within_socket_nghr, Buffer.input, index, 2).reduce(c)
        # cross-socket reduce_scatter
        for r in range(num_local_gpus):
            index = (r % (num_local_gpus//2)) * 2
            if r >= num_local_gpus // 2:
                index += 1
            lc = chunk(r, Buffer.input, index)
            peer = (r+num_local_gpus//2) % num_local_gpus
            lc = chunk(peer, Buffer.input, index).reduce(lc)
            lc.copy(r, Buffer.input, index, ch=1)
        # local all_gather
        for r in range(num_local_gpus):
            index = (r % (num_local_gpus//2)) * 2
            lc = chunk(r, Buffer.input, index, 2)
            for t in range(num_local_gpus//2):
                local_nghr = t + (num_local_gpus//2 if (r >= num_local_gpus//2) else 0)
                if local_nghr == r:
                    continue
                lc.copy(local_nghr, buffer=Buffer.input, index=index)
        XML()
        Check()

parser = argparse.ArgumentParser()
parser.add_argument('instances', type=int, help='number of instances')
args = parser.parse_args()
allreduce(args.instances)
