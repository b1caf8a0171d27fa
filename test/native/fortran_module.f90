! The hyprof Fortran module (`use hyprof`): timers by handle and by name (a blank-padded variable),
! phases with names built at run time, parameters of both integer kinds, user and context events of
! every kind the generic interfaces take, metadata, a thread name and the instrumentation switch.
! The module procedure kernels::relax and the program `heat` are where the samples land.
! Checked by test/fortran.test.ts.
module kernels
  use hyprof
  implicit none
contains
  subroutine relax(a, n, sweeps)
    integer, intent(in) :: n, sweeps
    real(8), intent(inout) :: a(n)
    integer :: i, sweep
    character(len=32) :: name
    name = 'relax'
    call hyprof_start_named(name)
    call hyprof_param('n', n)
    call hyprof_param('sweeps', int(sweeps, 8))
    do sweep = 1, sweeps
      do i = 2, n - 1
        a(i) = 0.5d0 * (a(i - 1) + a(i + 1)) + 1d-9 * sweep
      end do
    end do
    call hyprof_stop_named(name)
  end subroutine
end module

program heat
  use hyprof
  use kernels
  implicit none
  type(hyprof_event_t) :: setup, total
  type(hyprof_user_event_t) :: resid
  real(8) :: a(4000), s
  integer :: it, i
  character(len=20) :: ph
  call hyprof_init()
  call hyprof_set_thread_name('solver thread')
  call hyprof_metadata('solver', 'jacobi   ')
  total = hyprof_event('total')
  setup = hyprof_event('setup', 'INIT')
  resid = hyprof_user_event('residual')
  call hyprof_start(total)
  call hyprof_start(setup)
  a = 0
  a(1) = 1
  call hyprof_stop(setup)
  do it = 1, 3
    write (ph, '(a,i0)') 'Iteration ', it
    call hyprof_phase_start(ph)
    call relax(a, size(a), 4000)
    call hyprof_user_event_trigger(resid, a(2))
    call hyprof_user_event_trigger(resid, real(a(2)))
    call hyprof_user_event_trigger(resid, it)
    call hyprof_user_event_trigger(resid, int(it, 8))
    call hyprof_context_event_trigger(resid, 2.5d0)
    call hyprof_phase_stop(ph)
  end do
  ! Work of the main program itself, for samples in `heat`.
  s = 0
  do i = 1, 60000000
    s = s + 1d0 / i
  end do
  call hyprof_disable_instrumentation()
  call relax(a, 10, 1)
  call hyprof_user_event_trigger(resid, 1000d0)
  call hyprof_enable_instrumentation()
  call hyprof_stop(total)
  call hyprof_flush()
  print '(a,f0.3)', 'heat done ', s
end program
