# -*- Mode: python; py-indent-offset: 4; indent-tabs-mode: nil; coding: utf-8; -*-
# Build script for waf-based ns-3 (3.35 and older): put this directory in the source tree as
# contrib/allreduce. It lists the same files as CMakeLists.txt (a test checks that they agree).


def configure(conf):
    conf.env.append_value('CXXFLAGS', '-std=c++17')


def build(bld):
    module = bld.create_ns3_module('allreduce', ['core', 'network', 'internet', 'point-to-point', 'applications',
                                                'flow-monitor'])
    module.source = [
        'model/size-limits.cc',
        'model/text-file.cc',
        'model/topology.cc',
        'model/topology-generators.cc',
        'model/job-view.cc',
        'model/job-trace.cc',
        'model/paper-table.cc',
        'model/flow-tree.cc',
        'model/flow-path-routing.cc',
        'model/workload.cc',
        'model/scheduler-state.cc',
        'model/id-list.cc',
        'model/link-load-monitor.cc',
        'model/round-engine.cc',
        'model/packet-scheduler-state.cc',
        'model/round-program.cc',
        'model/schedule.cc',
        'model/plan.cc',
        'model/allreduce-scheduler.cc',
        'model/scheduler-registry.cc',
        'model/scheduler-result.cc',
        'model/replay-scheduler.cc',
        'model/priority-list-scheduler.cc',
        'model/candidate-trees.cc',
        'model/greedy-scheduler.cc',
        'model/parameter-server-scheduler.cc',
        'model/ring-scheduler.cc',
        'model/balanced-scheduler.cc',
        'model/optimal-scheduler.cc',
        'model/drl-environment.cc',
        'model/drl-policy.cc',
        'model/drl-trainer.cc',
        'model/drl-scheduler.cc',
        'model/allreduce-application.cc',
        'model/allreduce-controller.cc',
        'helper/dcn-topology-helper.cc',
        'helper/dynamic-table.cc',
        'helper/allreduce-helper.cc',
        'helper/allreduce-experiment.cc',
        'helper/checked-command-line.cc',
        'helper/report-format.cc',
        'helper/report-table.cc',
        'helper/background-traffic-helper.cc',
        'helper/bar-chart.cc',
        'helper/progress-reporter.cc',
        'helper/table-experiment.cc',
        'helper/rounds-table.cc',
        'helper/topology-summary.cc',
        'helper/rounds-report.cc',
        'helper/packet-report.cc',
        'helper/packet-table.cc',
    ]

    module_test = bld.create_ns3_module_test_library('allreduce')
    module_test.source = [
        'test/allreduce-test-suite.cc',
    ]

    headers = bld(features='ns3header')
    headers.module = 'allreduce'
    headers.source = [
        'model/size-limits.h',
        'model/text-file.h',
        'model/topology.h',
        'model/topology-generators.h',
        'model/job-view.h',
        'model/job-trace.h',
        'model/paper-table.h',
        'model/flow-tree.h',
        'model/flow-path-routing.h',
        'model/workload.h',
        'model/scheduler-state.h',
        'model/id-list.h',
        'model/link-load-monitor.h',
        'model/round-engine.h',
        'model/packet-scheduler-state.h',
        'model/round-program.h',
        'model/schedule.h',
        'model/plan.h',
        'model/allreduce-scheduler.h',
        'model/scheduler-registry.h',
        'model/scheduler-result.h',
        'model/replay-scheduler.h',
        'model/priority-list-scheduler.h',
        'model/candidate-trees.h',
        'model/greedy-scheduler.h',
        'model/parameter-server-scheduler.h',
        'model/ring-scheduler.h',
        'model/balanced-scheduler.h',
        'model/optimal-scheduler.h',
        'model/drl-environment.h',
        'model/drl-policy.h',
        'model/drl-trainer.h',
        'model/drl-scheduler.h',
        'model/allreduce-application.h',
        'model/allreduce-controller.h',
        'helper/dcn-topology-helper.h',
        'helper/dynamic-table.h',
        'helper/allreduce-helper.h',
        'helper/allreduce-experiment.h',
        'helper/checked-command-line.h',
        'helper/report-format.h',
        'helper/report-table.h',
        'helper/background-traffic-helper.h',
        'helper/bar-chart.h',
        'helper/progress-reporter.h',
        'helper/table-experiment.h',
        'helper/rounds-table.h',
        'helper/topology-summary.h',
        'helper/rounds-report.h',
        'helper/packet-report.h',
        'helper/packet-table.h',
    ]

    if bld.env.ENABLE_EXAMPLES:
        bld.recurse('examples')
