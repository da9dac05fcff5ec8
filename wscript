# -*- Mode: python; py-indent-offset: 4; indent-tabs-mode: nil; coding: utf-8; -*-
# Build script for waf-based ns-3 (3.35 and older): put this directory in the source tree as
# contrib/allreduce. It lists the same files as CMakeLists.txt (a test checks that they agree).
# Untested here: this machine has ns-3.37, which builds with CMake.

# The experiment layer's folders (CMakeLists.txt: ALLREDUCE_EXPERIMENT_DIRS).
EXPERIMENT_DIRS = ['experiment/io', 'experiment/runs', 'experiment/tables']


def configure(conf):
    conf.env.append_value('CXXFLAGS', '-std=c++17')
    # TinyXML-2 reads and writes MSCCL algorithm files.
    conf.check_cfg(package='tinyxml2', uselib_store='TINYXML2', args=['--cflags', '--libs'],
                   mandatory=True)


def build(bld):
    module = bld.create_ns3_module('allreduce', ['core', 'network', 'internet', 'point-to-point', 'applications', 'traffic-control',
                                                'flow-monitor', 'stats'])
    module.use.append('TINYXML2')
    module.source = [
        'model/common/size-limits.cc',
        'model/common/text-file.cc',
        'model/common/portable-random.cc',
        'model/common/short-name-registry.cc',
        'model/topology/topology.cc',
        'model/topology/topology-generators.cc',
        'model/topology/job-view.cc',
        'model/topology/flow-tree.cc',
        'model/topology/server-translations.cc',
        'model/workload/workload.cc',
        'model/workload/gradient-layout.cc',
        'model/flow/scheduler-state.cc',
        'model/flow/id-list.cc',
        'model/flow/aggregator-slots.cc',
        'model/flow/round-engine.cc',
        'model/schedule/schedule.cc',
        'model/schedule/plan.cc',
        'model/schedulers/round-program.cc',
        'model/schedulers/allreduce-scheduler.cc',
        'model/schedulers/scheduler-registry.cc',
        'model/schedulers/scheduler-result.cc',
        'model/schedulers/replay-scheduler.cc',
        'model/schedulers/priority-list-scheduler.cc',
        'model/schedulers/candidate-trees.cc',
        'model/schedulers/greedy-scheduler.cc',
        'model/schedulers/parameter-server-scheduler.cc',
        'model/schedulers/ring-scheduler.cc',
        'model/schedulers/balanced-scheduler.cc',
        'model/schedulers/optimal-scheduler.cc',
        'model/learning/drl-tree-catalogue.cc',
        'model/learning/drl-orbits.cc',
        'model/learning/drl-load-tracker.cc',
        'model/learning/drl-round-candidates.cc',
        'model/learning/drl-tree-observation.cc',
        'model/learning/drl-candidate-observation.cc',
        'model/learning/drl-environment.cc',
        'model/learning/drl-policy.cc',
        'model/learning/drl-rollout.cc',
        'model/learning/drl-trainer.cc',
        'model/learning/drl-scheduler.cc',
        'model/cluster/job-trace.cc',
        'model/cluster/placement-policy.cc',
        'model/cluster/packed-placement.cc',
        'model/cluster/random-placement.cc',
        'model/cluster/topology-aware-placement.cc',
        'model/cluster/list-placement.cc',
        'model/cluster/cluster-engine.cc',
        'model/cluster/cluster-queue.cc',
        'model/msccl/msccl-algorithm.cc',
        'model/msccl/msccl-simulator.cc',
        'model/msccl/msccl-schedule.cc',
        'model/msccl/plan-file.cc',
        'model/packet/flow-path-routing.cc',
        'model/packet/link-load-monitor.cc',
        'model/packet/packet-scheduler-state.cc',
        'model/packet/shared-links.cc',
        'model/packet/allreduce-verification.cc',
        'model/packet/connection-pool.cc',
        'model/packet/gradient-release.cc',
        'model/packet/stall-watch.cc',
        'model/packet/allreduce-application.cc',
        'model/packet/allreduce-controller.cc',
        'helper/dcn-topology-helper.cc',
        'helper/allreduce-helper.cc',
        'helper/background-traffic-helper.cc',
    ]

    module_test = bld.create_ns3_module_test_library('allreduce')
    module_test.source = [
        'test/allreduce-test-suite.cc',
        'test/allreduce-suite-schedulers.cc',
        'test/allreduce-suite-network.cc',
        'test/allreduce-suite-packet.cc',
    ]

    headers = bld(features='ns3header')
    headers.module = 'allreduce'
    headers.source = [
        'model/common/size-limits.h',
        'model/common/text-file.h',
        'model/common/portable-random.h',
        'model/common/id-span.h',
        'model/common/short-name-registry.h',
        'model/topology/topology.h',
        'model/topology/topology-generators.h',
        'model/topology/job-view.h',
        'model/topology/flow-tree.h',
        'model/topology/server-translations.h',
        'model/workload/workload.h',
        'model/workload/gradient-layout.h',
        'model/flow/scheduler-state.h',
        'model/flow/id-list.h',
        'model/flow/aggregator-slots.h',
        'model/flow/round-engine.h',
        'model/schedule/schedule.h',
        'model/schedule/plan.h',
        'model/schedulers/round-program.h',
        'model/schedulers/allreduce-scheduler.h',
        'model/schedulers/scheduler-registry.h',
        'model/schedulers/scheduler-result.h',
        'model/schedulers/replay-scheduler.h',
        'model/schedulers/priority-list-scheduler.h',
        'model/schedulers/candidate-trees.h',
        'model/schedulers/greedy-scheduler.h',
        'model/schedulers/parameter-server-scheduler.h',
        'model/schedulers/ring-scheduler.h',
        'model/schedulers/balanced-scheduler.h',
        'model/schedulers/optimal-scheduler.h',
        'model/learning/drl-tree-catalogue.h',
        'model/learning/drl-orbits.h',
        'model/learning/drl-load-tracker.h',
        'model/learning/drl-round-candidates.h',
        'model/learning/drl-tree-observation.h',
        'model/learning/drl-candidate-observation.h',
        'model/learning/drl-environment.h',
        'model/learning/drl-policy.h',
        'model/learning/drl-rollout.h',
        'model/learning/drl-trainer.h',
        'model/learning/drl-scheduler.h',
        'model/cluster/job-trace.h',
        'model/cluster/placement-policy.h',
        'model/cluster/packed-placement.h',
        'model/cluster/random-placement.h',
        'model/cluster/topology-aware-placement.h',
        'model/cluster/list-placement.h',
        'model/cluster/cluster-engine.h',
        'model/cluster/cluster-queue.h',
        'model/msccl/msccl-algorithm.h',
        'model/msccl/msccl-simulator.h',
        'model/msccl/msccl-schedule.h',
        'model/msccl/plan-file.h',
        'model/packet/flow-path-routing.h',
        'model/packet/link-load-monitor.h',
        'model/packet/packet-scheduler-state.h',
        'model/packet/shared-links.h',
        'model/packet/allreduce-verification.h',
        'model/packet/connection-pool.h',
        'model/packet/gradient-release.h',
        'model/packet/stall-watch.h',
        'model/packet/allreduce-application.h',
        'model/packet/allreduce-controller.h',
        'helper/dcn-topology-helper.h',
        'helper/allreduce-helper.h',
        'helper/background-traffic-helper.h',
    ]

    # The experiment layer: a library of its own beside the module, which the examples and
    # the module's test library use; its headers are included by name from its folders.
    experiment = bld(features='cxx cxxshlib', target='ns3-allreduce-experiment',
                     use=['ns3-allreduce', 'TINYXML2'], includes=EXPERIMENT_DIRS,
                     export_includes=EXPERIMENT_DIRS)
    experiment.source = [
        'experiment/io/checked-command-line.cc',
        'experiment/io/report-format.cc',
        'experiment/io/text-columns.cc',
        'experiment/io/bar-chart.cc',
        'experiment/io/cdf-chart.cc',
        'experiment/io/learning-curve-chart.cc',
        'experiment/io/progress-reporter.cc',
        'experiment/runs/allreduce-experiment.cc',
        'experiment/runs/cluster-report.cc',
        'experiment/runs/packet-cluster.cc',
        'experiment/runs/drl-search-reporter.cc',
        'experiment/runs/rounds-report.cc',
        'experiment/runs/packet-report.cc',
        'experiment/tables/paper-topologies.cc',
        'experiment/tables/dynamic-table.cc',
        'experiment/tables/cluster-table.cc',
        'experiment/tables/table-experiment.cc',
        'experiment/tables/aggregation-table.cc',
        'experiment/tables/rounds-table.cc',
        'experiment/tables/topology-summary.cc',
        'experiment/tables/packet-table.cc',
    ]
    module_test.use.append('ns3-allreduce-experiment')

    if bld.env.ENABLE_EXAMPLES:
        bld.recurse('examples')
