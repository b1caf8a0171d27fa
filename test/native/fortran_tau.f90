! TAU's Fortran API as TAU's Fortran examples call it: profiler handles in SAVEd integer(2) arrays,
! upper-case calls with no interface, names in quotes or in blank-padded variables. Linked with
! -lhyprof only (no module); checked by test/fortran.test.ts.
subroutine work(n)
  implicit none
  integer :: n, i
  integer :: profiler(2) = (/ 0, 0 /)
  save profiler
  real(8) :: s
  call TAU_PROFILE_TIMER(profiler, 'work')
  call TAU_PROFILE_START(profiler)
  call TAU_PROFILE_PARAM1L(int(n, 8), 'n')
  s = 0
  do i = 1, 200000
    s = s + 1d0 / i
  end do
  if (s < 0) print *, s
  call TAU_PROFILE_STOP(profiler)
end subroutine

program taufortran
  implicit none
  integer :: main(2) = (/ 0, 0 /), setup(2) = (/ 0, 0 /), phase(2), values(2) = (/ 0, 0 /)
  integer :: context(2) = (/ 0, 0 /)
  save main, setup, values, context
  character(len=24) :: name
  integer :: it
  call TAU_PROFILE_INIT()
  call TAU_PROFILE_SET_NODE(0)
  call TAU_PROFILE_SET_CONTEXT(0)
  name = 'main program'
  call TAU_PROFILE_TIMER(main, name)
  call TAU_PROFILE_START(main)
  call TAU_METADATA('fortran key', 'fortran value   ')
  call TAU_REGISTER_EVENT(values, 'iteration value')
  call TAU_REGISTER_CONTEXT_EVENT(context, 'context value')
  call TAU_PHASE_CREATE_STATIC(setup, 'setup')
  call TAU_PHASE_START(setup)
  call work(1)
  call TAU_PHASE_STOP(setup)
  do it = 1, 3
    write (name, '(a,i0)') 'Iteration ', it
    phase = 0
    call TAU_PHASE_CREATE_DYNAMIC(phase, name)
    call TAU_PHASE_START(phase)
    call work(2)
    call TAU_EVENT(values, dble(it))
    call TAU_CONTEXT_EVENT(context, 1.5d0)
    call TAU_PHASE_STOP(phase)
  end do
  call TAU_STATIC_PHASE_START('static phase')
  call TAU_STATIC_PHASE_STOP('static phase')
  call TAU_START('by name')
  call TAU_STOP('by name')
  call TAU_DISABLE_INSTRUMENTATION()
  call work(3)
  call TAU_EVENT(values, 100d0)
  call TAU_ENABLE_INSTRUMENTATION()
  call TAU_DB_DUMP()
  call TAU_PROFILE_STOP(main)
  call TAU_PROFILE_EXIT('done')
  print '(a)', 'taufortran done'
end program
